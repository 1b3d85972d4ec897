"""Name and address lists (Indian names with their Devanagari spelling, Vietnamese names
with diacritics, real Indian cities with PIN prefixes, real Vietnamese wards/districts
with the province codes of Circular 07/2016/TT-BCA)."""

IN_MALE = [
    ("Rahul", "राहुल"), ("Amit", "अमित"), ("Suresh", "सुरेश"), ("Rajesh", "राजेश"),
    ("Vikram", "विक्रम"), ("Arjun", "अर्जुन"), ("Sanjay", "संजय"), ("Anil", "अनिल"),
    ("Manoj", "मनोज"), ("Deepak", "दीपक"), ("Ravi", "रवि"), ("Vijay", "विजय"),
    ("Prakash", "प्रकाश"), ("Ramesh", "रमेश"), ("Mahesh", "महेश"), ("Karthik", "कार्तिक"),
    ("Venkatesh", "वेंकटेश"), ("Mohammed", "मोहम्मद"), ("Imran", "इमरान"),
    ("Harpreet", "हरप्रीत"), ("Sunil", "सुनील"), ("Ashok", "अशोक"), ("Nitin", "नितिन"),
    ("Rohit", "रोहित"), ("Ajay", "अजय"), ("Sandeep", "संदीप"), ("Pradeep", "प्रदीप"),
    ("Abhishek", "अभिषेक"), ("Gopal", "गोपाल"), ("Dinesh", "दिनेश"), ("Farhan", "फरहान"),
    ("Srinivas", "श्रीनिवास"), ("Balaji", "बालाजी"), ("Hemant", "हेमंत"),
]
IN_FEMALE = [
    ("Priya", "प्रिया"), ("Anjali", "अंजलि"), ("Sunita", "सुनीता"), ("Kavita", "कविता"),
    ("Pooja", "पूजा"), ("Neha", "नेहा"), ("Lakshmi", "लक्ष्मी"), ("Meena", "मीना"),
    ("Rekha", "रेखा"), ("Divya", "दिव्या"), ("Asha", "आशा"), ("Sneha", "स्नेहा"),
    ("Deepika", "दीपिका"), ("Fatima", "फातिमा"), ("Shabana", "शबाना"), ("Geeta", "गीता"),
    ("Sarita", "सरिता"), ("Anita", "अनीता"), ("Radha", "राधा"), ("Swati", "स्वाति"),
    ("Nisha", "निशा"), ("Pallavi", "पल्लवी"), ("Shalini", "शालिनी"), ("Bhavana", "भावना"),
    ("Jyoti", "ज्योति"), ("Revathi", "रेवती"),
]
IN_MIDDLE_M = [("Kumar", "कुमार"), ("Prasad", "प्रसाद"), ("Singh", "सिंह"), ("Lal", "लाल"),
               ("Chandra", "चंद्र"), ("Nath", "नाथ")]
IN_MIDDLE_F = [("Devi", "देवी"), ("Kumari", "कुमारी"), ("Rani", "रानी")]
IN_SURNAMES = [
    ("Sharma", "शर्मा"), ("Verma", "वर्मा"), ("Gupta", "गुप्ता"), ("Singh", "सिंह"),
    ("Yadav", "यादव"), ("Patel", "पटेल"), ("Shah", "शाह"), ("Reddy", "रेड्डी"),
    ("Nair", "नायर"), ("Iyer", "अय्यर"), ("Rao", "राव"), ("Das", "दास"),
    ("Banerjee", "बनर्जी"), ("Chatterjee", "चटर्जी"), ("Mukherjee", "मुखर्जी"),
    ("Khan", "खान"), ("Ansari", "अंसारी"), ("Joshi", "जोशी"), ("Kulkarni", "कुलकर्णी"),
    ("Deshmukh", "देशमुख"), ("Pillai", "पिल्लई"), ("Naidu", "नायडू"), ("Mehta", "मेहता"),
    ("Agarwal", "अग्रवाल"), ("Mishra", "मिश्रा"), ("Pandey", "पांडे"), ("Tiwari", "तिवारी"),
    ("Chauhan", "चौहान"), ("Thakur", "ठाकुर"), ("Gill", "गिल"), ("Sandhu", "संधू"),
    ("Bhatt", "भट्ट"), ("Menon", "मेनन"), ("Qureshi", "कुरैशी"), ("Saxena", "सक्सेना"),
]

# (city/VTC, district, state, PIN prefix, localities, Hindi city, Hindi district, Hindi state)
IN_PLACES = [
    ("Bengaluru", "Bengaluru Urban", "Karnataka", "560",
     [("Indiranagar", "इंदिरानगर"), ("Jayanagar", "जयनगर"), ("Koramangala", "कोरमंगला")],
     "बेंगलुरु", "बेंगलुरु शहरी", "कर्नाटक"),
    ("Mumbai", "Mumbai Suburban", "Maharashtra", "400",
     [("Andheri East", "अंधेरी पूर्व"), ("Borivali West", "बोरीवली पश्चिम"), ("Malad West", "मालाड पश्चिम")],
     "मुंबई", "मुंबई उपनगर", "महाराष्ट्र"),
    ("Pune", "Pune", "Maharashtra", "411",
     [("Kothrud", "कोथरूड"), ("Hadapsar", "हडपसर")], "पुणे", "पुणे", "महाराष्ट्र"),
    ("New Delhi", "South Delhi", "Delhi", "110",
     [("Lajpat Nagar", "लाजपत नगर"), ("Malviya Nagar", "मालवीय नगर"), ("Saket", "साकेत")],
     "नई दिल्ली", "दक्षिण दिल्ली", "दिल्ली"),
    ("Lucknow", "Lucknow", "Uttar Pradesh", "226",
     [("Gomti Nagar", "गोमती नगर"), ("Aliganj", "अलीगंज")], "लखनऊ", "लखनऊ", "उत्तर प्रदेश"),
    ("Jaipur", "Jaipur", "Rajasthan", "302",
     [("Vaishali Nagar", "वैशाली नगर"), ("Mansarovar", "मानसरोवर")], "जयपुर", "जयपुर", "राजस्थान"),
    ("Patna", "Patna", "Bihar", "800",
     [("Kankarbagh", "कंकड़बाग"), ("Rajendra Nagar", "राजेंद्र नगर")], "पटना", "पटना", "बिहार"),
    ("Bhopal", "Bhopal", "Madhya Pradesh", "462",
     [("Arera Colony", "अरेरा कॉलोनी"), ("Kolar Road", "कोलार रोड")], "भोपाल", "भोपाल", "मध्य प्रदेश"),
    ("Ahmedabad", "Ahmedabad", "Gujarat", "380",
     [("Navrangpura", "नवरंगपुरा"), ("Maninagar", "मणिनगर")], "अहमदाबाद", "अहमदाबाद", "गुजरात"),
    ("Chennai", "Chennai", "Tamil Nadu", "600",
     [("T Nagar", "टी नगर"), ("Adyar", "अड्यार"), ("Velachery", "वेलाचेरी")], "चेन्नई", "चेन्नई", "तमिलनाडु"),
    ("Hyderabad", "Hyderabad", "Telangana", "500",
     [("Kukatpally", "कूकटपल्ली"), ("Ameerpet", "अमीरपेट")], "हैदराबाद", "हैदराबाद", "तेलंगाना"),
    ("Kolkata", "Kolkata", "West Bengal", "700",
     [("Salt Lake", "साल्ट लेक"), ("Behala", "बेहाला")], "कोलकाता", "कोलकाता", "पश्चिम बंगाल"),
    ("Varanasi", "Varanasi", "Uttar Pradesh", "221",
     [("Sigra", "सिगरा"), ("Lanka", "लंका")], "वाराणसी", "वाराणसी", "उत्तर प्रदेश"),
    ("Indore", "Indore", "Madhya Pradesh", "452",
     [("Vijay Nagar", "विजय नगर"), ("Rajendra Nagar", "राजेंद्र नगर")], "इंदौर", "इंदौर", "मध्य प्रदेश"),
    ("Kakkanad", "Ernakulam", "Kerala", "682",
     [("Thrikkakara", "त्रिक्काकरा")], "काक्कनाड", "एर्णाकुलम", "केरल"),
    ("Ludhiana", "Ludhiana", "Punjab", "141",
     [("Model Town", "मॉडल टाउन"), ("Sarabha Nagar", "सराभा नगर")], "लुधियाना", "लुधियाना", "पंजाब"),
]

IN_STREETS = [("MG Road", "एमजी रोड"), ("Station Road", "स्टेशन रोड"), ("Gandhi Marg", "गांधी मार्ग"),
              ("Nehru Street", "नेहरू स्ट्रीट"), ("Main Road", "मेन रोड"), ("Temple Road", "टेम्पल रोड"),
              ("Church Street", "चर्च स्ट्रीट"), ("Ring Road", "रिंग रोड"), ("Tilak Marg", "तिलक मार्ग")]
IN_LANDMARKS = [("Near Water Tank", "वाटर टैंक के पास"), ("Near Hanuman Mandir", "हनुमान मंदिर के पास"),
                ("Opp. Post Office", "डाकघर के सामने"), ("Behind Govt. School", "सरकारी स्कूल के पीछे"),
                ("Near Bus Stand", "बस स्टैंड के पास")]
IN_BUILDINGS = [("Sai Residency", "साई रेजीडेंसी"), ("Shanti Apartments", "शांति अपार्टमेंट"),
                ("Green Park Society", "ग्रीन पार्क सोसाइटी"), ("Lotus Enclave", "लोटस एन्क्लेव")]

IN_BIRTH_PLACES = ["DELHI", "MUMBAI, MAHARASHTRA", "LUCKNOW, UTTAR PRADESH", "PATNA, BIHAR",
                   "CHENNAI, TAMIL NADU", "KOLKATA, WEST BENGAL", "JAIPUR, RAJASTHAN",
                   "AMRITSAR, PUNJAB", "BHOPAL", "HYDERABAD, TELANGANA", "PUNE", "KOCHI, KERALA",
                   "AHMEDABAD, GUJARAT", "VARANASI"]
IN_PASSPORT_OFFICES = ["DELHI", "MUMBAI", "BENGALURU", "CHENNAI", "KOLKATA", "LUCKNOW",
                       "HYDERABAD", "PATNA", "JAIPUR", "AHMEDABAD", "PUNE", "COCHIN", "BHOPAL",
                       "AMRITSAR", "GHAZIABAD"]
IN_CONSTITUENCIES = ["Shivajinagar", "Andheri East", "Lucknow Central", "Malviya Nagar",
                     "Kankarbagh", "Govindpura", "Navrangpura", "Mylapore", "Kukatpally",
                     "Behala Paschim", "Varanasi Cantt.", "Indore-2", "Thrikkakara", "Ludhiana West"]

VN_SURNAMES = ["Nguyễn", "Trần", "Lê", "Phạm", "Hoàng", "Huỳnh", "Phan", "Vũ", "Võ", "Đặng",
               "Bùi", "Đỗ", "Hồ", "Ngô", "Dương", "Lý", "Trịnh", "Đinh"]
VN_MIDDLE_M = ["Văn", "Hữu", "Đức", "Minh", "Quang", "Thành", "Công", "Xuân", "Tiến"]
VN_MIDDLE_F = ["Thị", "Ngọc", "Thu", "Thanh", "Mai", "Kim", "Bảo", "Thùy"]
VN_GIVEN_M = ["An", "Bình", "Cường", "Dũng", "Hùng", "Khoa", "Long", "Nam", "Phúc", "Quân",
              "Sơn", "Tuấn", "Việt", "Hải", "Đạt", "Huy", "Trung", "Thắng", "Lộc", "Khải"]
VN_GIVEN_F = ["Anh", "Hương", "Lan", "Linh", "Ngân", "Phương", "Thảo", "Trang", "Uyên", "Vy",
              "Yến", "Hà", "Nhung", "Hằng", "Thủy", "Hạnh", "Quyên", "Nguyệt"]

# province code, province name, [(ward/commune, district/city)]
VN_PLACES = [
    ("001", "Hà Nội", [("Láng Hạ", "Đống Đa"), ("Dịch Vọng", "Cầu Giấy"), ("Phú Diễn", "Bắc Từ Liêm"),
                       ("Vân Canh", "Hoài Đức")]),
    ("079", "Hồ Chí Minh", [("Tân Định", "Quận 1"), ("Linh Trung", "Thủ Đức"),
                             ("Bình Trị Đông", "Bình Tân")]),
    ("048", "Đà Nẵng", [("Hải Châu I", "Hải Châu"), ("An Hải Bắc", "Sơn Trà")]),
    ("031", "Hải Phòng", [("Lạch Tray", "Ngô Quyền"), ("Đằng Hải", "Hải An")]),
    ("092", "Cần Thơ", [("An Hòa", "Ninh Kiều")]),
    ("046", "Thừa Thiên Huế", [("Phú Mậu", "Phú Vang"), ("Vĩnh Ninh", "Huế")]),
    ("040", "Nghệ An", [("Hưng Dũng", "Vinh"), ("Diễn Kim", "Diễn Châu")]),
    ("038", "Thanh Hóa", [("Hoằng Đạo", "Hoằng Hóa"), ("Quảng Thắng", "Thanh Hóa")]),
    ("036", "Nam Định", [("Hải Minh", "Hải Hậu")]),
    ("034", "Thái Bình", [("Vũ Hội", "Vũ Thư")]),
    ("027", "Bắc Ninh", [("Đình Bảng", "Từ Sơn")]),
    ("049", "Quảng Nam", [("Cẩm Phô", "Hội An")]),
    ("052", "Bình Định", [("Nhơn Lý", "Quy Nhơn")]),
    ("056", "Khánh Hòa", [("Lộc Thọ", "Nha Trang")]),
    ("066", "Đắk Lắk", [("Tân Lợi", "Buôn Ma Thuột")]),
    ("068", "Lâm Đồng", [("Phường 1", "Đà Lạt")]),
    ("075", "Đồng Nai", [("Tân Phong", "Biên Hòa")]),
    ("074", "Bình Dương", [("Phú Hòa", "Thủ Dầu Một")]),
    ("089", "An Giang", [("Mỹ Bình", "Long Xuyên")]),
    ("091", "Kiên Giang", [("Dương Đông", "Phú Quốc")]),
    ("083", "Bến Tre", [("Phú Khương", "Bến Tre")]),
    ("030", "Hải Dương", [("Cẩm Thượng", "Hải Dương")]),
    ("042", "Hà Tĩnh", [("Thạch Linh", "Hà Tĩnh")]),
    ("022", "Quảng Ninh", [("Hồng Gai", "Hạ Long")]),
    ("037", "Ninh Bình", [("Ninh Khánh", "Ninh Bình")]),
]
VN_STREETS = ["Trần Hưng Đạo", "Lê Lợi", "Nguyễn Trãi", "Hai Bà Trưng", "Lý Thường Kiệt",
              "Quang Trung", "Phan Đình Phùng", "Nguyễn Huệ", "Bạch Đằng", "Hùng Vương"]
VN_MARKS = ["Nốt ruồi C:1,5cm trên sau đầu lông mày trái", "Sẹo chấm C:2cm dưới trước cánh mũi phải",
            "Nốt ruồi C:1cm dưới sau mép trái", "Sẹo chấm C:3cm trên sau đuôi mắt phải",
            "Nốt ruồi C:2cm trên trước vành tai trái"]
